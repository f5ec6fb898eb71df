import { useEffect } from 'preact/hooks';

/** The tab's title: `<screen> · svc admin`. */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · svc admin`;
  }, [title]);
}
