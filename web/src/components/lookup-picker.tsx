// A picker for a foreign key (issue 18): an ARIA combobox over GET <lookup>?search=<text>
// (`{data: [{id, label}]}`, at most 20), showing the label of the chosen id (`?ids=<id>`).
// Keyboard: type to search, ArrowDown/ArrowUp to move, Enter to choose, Esc to close.
// The options are placed in the viewport (position: fixed) from the input's box, not inside the
// picker: a detail table scrolls sideways (overflow-x), which clips anything absolutely placed
// in it in both directions, and its rows are short, so the options showed as a thin line.
import { useEffect, useId, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { LookupItem } from '../../../src/engine/description/metadata-types.js';
import { get } from '../lib/api.js';
import { knownLabel, labelOf, rememberLabels } from '../lib/lookup-labels.js';

async function search(lookup: string, text: string): Promise<LookupItem[]> {
  const answer = await get<{ data: LookupItem[] }>(`${lookup}?search=${encodeURIComponent(text)}`);
  rememberLabels(lookup, answer.data);
  return answer.data;
}

const EDGE = 8;
const GAP = 2;

/**
 * Puts the options under the input (above it when there is more room there), as wide as the
 * input and no taller than the room, in viewport coordinates.
 */
function placeOptions(input: HTMLElement, list: HTMLElement): void {
  const box = input.getBoundingClientRect();
  const viewport = document.documentElement;
  const below = viewport.clientHeight - box.bottom - GAP - EDGE;
  const above = box.top - GAP - EDGE;
  // The height they want: all of them (scrollHeight, whatever max-height cuts off now, and the
  // borders), at most 15rem.
  const rem = Number.parseFloat(getComputedStyle(viewport).fontSize);
  const wanted = Math.min(list.scrollHeight + 2, 15 * rem);
  const up = below < wanted && above > below;
  const style = list.style;
  // Under the input, cut to the viewport sideways (an input partly scrolled out of its table).
  const left = Math.max(0, box.left);
  style.left = `${left}px`;
  style.width = `${Math.max(Math.min(box.right, viewport.clientWidth) - left, 0)}px`;
  style.maxHeight = `${Math.max(Math.min(up ? above : below, 15 * rem), 0)}px`;
  style.top = up ? '' : `${box.bottom + GAP}px`;
  style.bottom = up ? `${viewport.clientHeight - box.top + GAP}px` : '';
}

export interface LookupPickerProps {
  readonly id?: string;
  readonly lookup: string;
  /** The chosen id as text ('' for none). */
  readonly value: string;
  readonly onChange: (id: string) => void;
  /** The accessible name when no <label for> names the input. */
  readonly label?: string;
  readonly invalid?: boolean;
  readonly describedBy?: string | undefined;
  readonly required?: boolean;
}

export function LookupPicker(props: LookupPickerProps) {
  const { lookup, value, onChange } = props;
  const listId = useId();
  const optionPrefix = useId();
  const [text, setText] = useState(() => knownLabel(lookup, value) ?? '');
  const [options, setOptions] = useState<LookupItem[]>([]);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const query = useRef(0);
  const input = useRef<HTMLInputElement>(null);
  const list = useRef<HTMLDivElement>(null);
  const showing = open && options.length > 0;
  // The close a blur schedules (so a click on an option lands first); focus coming back cancels
  // it, or it would shut the options a search opened meanwhile.
  const closing = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  // The chosen id's label, when the value changes from outside (a loaded record).
  useEffect(() => {
    if (value === '') {
      setText('');
      return;
    }
    let live = true;
    labelOf(lookup, value).then(
      (label) => live && setText(label ?? `#${value}`),
      () => live && setText(`#${value}`),
    );
    return () => {
      live = false;
    };
  }, [lookup, value]);

  // Placed before the options are painted, after every render (the options change, or a row
  // above comes or goes), and again while any scroller moves or the window is resized.
  const place = () => {
    if (input.current && list.current) placeOptions(input.current, list.current);
  };
  useLayoutEffect(() => {
    if (showing) place();
  });
  useEffect(() => {
    if (!showing) return;
    addEventListener('scroll', place, true);
    addEventListener('resize', place);
    return () => {
      removeEventListener('scroll', place, true);
      removeEventListener('resize', place);
    };
  }, [showing]);

  const find = (term: string) => {
    const ticket = ++query.current;
    search(lookup, term).then(
      (items) => {
        if (ticket !== query.current) return;
        setOptions(items);
        setActive(items.length > 0 ? 0 : -1);
        setOpen(true);
      },
      () => {},
    );
  };

  const choose = (item: LookupItem) => {
    setText(item.label);
    setOpen(false);
    onChange(String(item.id));
  };

  const close = () => {
    setOpen(false);
    // Typed text that chose nothing: back to the chosen record's label, or none when emptied.
    if (text.trim() === '') {
      if (value !== '') onChange('');
    } else setText(value === '' ? '' : (knownLabel(lookup, value) ?? text));
  };

  return (
    <div class="picker">
      <input
        ref={input}
        id={props.id}
        type="text"
        role="combobox"
        autoComplete="off"
        aria-label={props.label}
        aria-autocomplete="list"
        aria-expanded={open}
        aria-controls={listId}
        aria-activedescendant={open && active >= 0 ? `${optionPrefix}-${active}` : undefined}
        aria-invalid={props.invalid ? 'true' : undefined}
        aria-describedby={props.describedBy}
        aria-required={props.required ? 'true' : undefined}
        value={text}
        onInput={(event) => {
          const next = event.currentTarget.value;
          setText(next);
          find(next);
        }}
        onClick={() => {
          if (!open) find('');
        }}
        onBlur={() => {
          closing.current = setTimeout(close, 150);
        }}
        onFocus={() => clearTimeout(closing.current)}
        onKeyDown={(event) => {
          if (event.key === 'ArrowDown') {
            event.preventDefault();
            if (!open) find(text === (knownLabel(lookup, value) ?? '') ? '' : text);
            else setActive((a) => Math.min(a + 1, options.length - 1));
          } else if (event.key === 'ArrowUp') {
            event.preventDefault();
            setActive((a) => Math.max(a - 1, 0));
          } else if (event.key === 'Enter' && open) {
            const item = options[active];
            if (item) {
              event.preventDefault();
              choose(item);
            }
          } else if (event.key === 'Escape' && open) {
            event.preventDefault();
            event.stopPropagation();
            close();
          }
        }}
      />
      <div ref={list} id={listId} role="listbox" class="picker-list" hidden={!showing}>
        {options.map((item, index) => (
          // biome-ignore lint/a11y/useKeyWithClickEvents: the keys are the combobox's (aria-activedescendant): focus stays in the input
          <div
            key={item.id}
            id={`${optionPrefix}-${index}`}
            role="option"
            tabIndex={-1}
            aria-selected={index === active}
            onMouseDown={(event) => event.preventDefault()}
            onClick={() => choose(item)}
          >
            {item.label}
          </div>
        ))}
      </div>
    </div>
  );
}
