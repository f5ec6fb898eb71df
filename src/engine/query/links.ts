// The Link header of a list answer (issue 21, RFC 8288): the request's own target with `cursor`
// set to the next or previous cursor and `page` left out (the two cannot be sent together).
// Input sent in a JSON body is not in the link: such a client sends the cursor with its body.
// The header is bounded (issue 31, finding 7): each link repeats the query, percent-encoded, so
// a long filter made headers past what clients and proxies accept (Node's fetch takes 16 KiB,
// common proxies 4 to 8 KiB). A link that would take the header past MAX_LINK_HEADER bytes is
// left out (next is placed first); the page's cursors are in `meta` when the request sends
// `cursor`.

/** Bytes the Link header may hold (its text is ASCII: the query is percent-encoded). */
export const MAX_LINK_HEADER = 4096;

/** `<target>; rel="next", <target>; rel="prev"`, or null when the answer has neither. */
export function listLinks(
  url: string,
  cursors: { readonly next: string | null; readonly prev: string | null },
): string | null {
  const mark = url.indexOf('?');
  const path = mark < 0 ? url : url.slice(0, mark);
  const query = mark < 0 ? '' : url.slice(mark + 1);
  const target = (cursor: string) => {
    const params = new URLSearchParams(query);
    params.delete('page');
    params.set('cursor', cursor);
    return `<${path}?${params.toString()}>`;
  };
  let header = '';
  for (const [cursor, rel] of [
    [cursors.next, 'next'],
    [cursors.prev, 'prev'],
  ] as const) {
    if (cursor === null) continue;
    const joined = `${header}${header ? ', ' : ''}${target(cursor)}; rel="${rel}"`;
    if (joined.length <= MAX_LINK_HEADER) header = joined;
  }
  return header || null;
}
