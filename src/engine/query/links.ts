// The Link header of a list answer (issue 21, RFC 8288): the request's own target with `cursor`
// set to the next or previous cursor and `page` left out (the two cannot be sent together).
// Input sent in a JSON body is not in the link: such a client sends the cursor with its body.

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
  const links = [
    cursors.next && `${target(cursors.next)}; rel="next"`,
    cursors.prev && `${target(cursors.prev)}; rel="prev"`,
  ].filter(Boolean);
  return links.length > 0 ? links.join(', ') : null;
}
