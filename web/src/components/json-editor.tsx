// `mapping_json` and any `json` input (issue 18 item 4): a code area that says whether its text
// is JSON as the person types, and pretty-prints it on request.
import { useId } from 'preact/hooks';

export interface JsonEditorProps {
  readonly id: string;
  readonly value: string;
  readonly onChange: (value: string) => void;
  readonly invalid?: boolean;
  readonly describedBy?: string | undefined;
  readonly required?: boolean;
}

function check(text: string): string | null {
  if (text.trim() === '') return null;
  try {
    JSON.parse(text);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : 'not JSON';
  }
}

export function JsonEditor(props: JsonEditorProps) {
  const statusId = useId();
  const problem = check(props.value);
  return (
    <>
      <textarea
        id={props.id}
        class="code"
        spellcheck={false}
        value={props.value}
        aria-invalid={props.invalid || problem ? 'true' : undefined}
        aria-describedby={[statusId, props.describedBy].filter(Boolean).join(' ')}
        aria-required={props.required ? 'true' : undefined}
        onInput={(e) => props.onChange(e.currentTarget.value)}
        onKeyDown={(e) => {
          // Tab indents only with Shift+Alt free: plain Tab keeps moving focus (keyboard use).
          if (e.key === 'Tab' && e.altKey) {
            e.preventDefault();
            const area = e.currentTarget;
            const at = area.selectionStart;
            props.onChange(`${area.value.slice(0, at)}  ${area.value.slice(area.selectionEnd)}`);
            requestAnimationFrame(() => area.setSelectionRange(at + 2, at + 2));
          }
        }}
      />
      <div class="json-tools">
        <button
          type="button"
          disabled={problem !== null || props.value.trim() === ''}
          onClick={() => props.onChange(JSON.stringify(JSON.parse(props.value), null, 2))}
        >
          Format JSON
        </button>
        <span id={statusId} class={problem ? 'field-error' : 'hint'} aria-live="polite">
          {props.value.trim() === '' ? '' : problem ? `Not valid JSON: ${problem}` : 'Valid JSON'}
        </span>
      </div>
    </>
  );
}
