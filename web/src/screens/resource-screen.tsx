// What every screen of one resource does first: Loading… until the resources' metadata is read,
// then Not found for a resource the user does not have or may not `action`, else the screen.
import type { ComponentChildren } from 'preact';
import type { Action, ResourceMeta } from '../../../src/engine/description/metadata-types.js';
import { useResource } from '../lib/session.js';
import { NotFound } from './not-found.js';

export function ResourceScreen(props: {
  readonly name: string;
  readonly action: Action;
  readonly children: (meta: ResourceMeta) => ComponentChildren;
}) {
  const meta = useResource(props.name);
  if (meta === undefined)
    return (
      <p role="status" class="loading">
        Loading…
      </p>
    );
  if (meta === null || !meta.allowed.includes(props.action)) return <NotFound />;
  return <>{props.children(meta)}</>;
}
