// The form's record was saved by someone else: after a refused save (a 412) an alert that takes
// the focus; when the change feed tells first, a notice that leaves the focus where it is (the
// app's live region says it). Either way what the person typed stays in the form until they choose: keep their changes
// (on top of the other version) or load the other version.
import { useEffect, useRef } from 'preact/hooks';
import { formatDate } from '../lib/format.js';
import type { ElsewhereChange } from '../lib/use-changed-elsewhere.js';

export function ChangedElsewhere(props: {
  change: ElsewhereChange;
  singular: string;
  dirty: boolean;
  onKeep: () => void;
  onLoad: () => void;
}) {
  const { change, singular, dirty, onKeep, onLoad } = props;
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (change.refused) box.current?.focus();
  }, [change]);
  const what = `This ${singular.toLowerCase()}`;
  const who = change.by ? ` by ${change.by}` : ' by someone else';
  const when = change.at ? ` at ${formatDate(change.at)}` : '';
  const verb = change.deleted ? 'was deleted' : 'was changed';
  return (
    <div
      class={change.refused ? 'alert elsewhere' : 'notice elsewhere'}
      role={change.refused ? 'alert' : undefined}
      tabIndex={-1}
      ref={box}
    >
      <p>
        {change.refused === 'save'
          ? 'Not saved: '
          : change.refused === 'delete'
            ? 'Not deleted: '
            : ''}
        {what} {verb}
        {who}
        {when}
        {change.refused ? ' since you opened it.' : '.'}
        {change.refused === 'save' ? ' What you typed is still in the form.' : ''}
      </p>
      {change.changed.length > 0 ? <p>Their changes: {change.changed.join(', ')}.</p> : null}
      {change.deleted ? null : (
        <div class="elsewhere-actions">
          {dirty || change.refused ? (
            <>
              <button type="button" class="primary" onClick={onKeep}>
                Keep my changes
              </button>
              <button type="button" onClick={onLoad}>
                Load their version
              </button>
            </>
          ) : (
            <button type="button" onClick={onLoad}>
              Reload
            </button>
          )}
        </div>
      )}
    </div>
  );
}
