// Ctrl/Cmd+S saves, wherever the focus is (the browser's Save page is not what a form means).
import { useEffect, useRef } from 'preact/hooks';

export function useSaveShortcut(save: () => unknown): void {
  const saveRef = useRef(save);
  saveRef.current = save;
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 's') {
        event.preventDefault();
        saveRef.current();
      }
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, []);
}
