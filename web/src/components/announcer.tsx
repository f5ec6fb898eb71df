// One polite live region for the whole app, present from the start (a region inserted with its
// text is often not read): what changed out of sight (rows arriving in a list, a record saved by
// someone else) is told to screen-reader users without moving their focus.
import { useEffect, useState } from 'preact/hooks';
import { ANNOUNCE_EVENT } from '../lib/announce.js';

export function Announcer() {
  const [text, setText] = useState('');
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onAnnounce = (event: Event) => {
      // Emptied first, so the same words said twice are read twice.
      setText('');
      clearTimeout(timer);
      timer = setTimeout(() => setText((event as CustomEvent<string>).detail), 50);
    };
    addEventListener(ANNOUNCE_EVENT, onAnnounce);
    return () => {
      clearTimeout(timer);
      removeEventListener(ANNOUNCE_EVENT, onAnnounce);
    };
  }, []);
  return (
    <p class="visually-hidden" role="status" aria-live="polite">
      {text}
    </p>
  );
}
