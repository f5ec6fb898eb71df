import { Link } from '../lib/router.js';
import { useTitle } from '../lib/title.js';

export function NotFound() {
  useTitle('Not found');
  return (
    <section>
      <h1 tabIndex={-1}>Not found</h1>
      <p>
        There is no screen at this address. <Link href="/admin/">Go to the start page</Link>.
      </p>
    </section>
  );
}
