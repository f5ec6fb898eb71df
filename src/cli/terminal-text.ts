// What the command line prints of stored text (names written through the API) reaches the
// operator's terminal with its control characters escaped: C0, DEL and C1 (an ESC or CSI starts
// a sequence that can set the window title, clear the screen or move the cursor).

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const CONTROLS_BUT_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g;
const JSON_RAW_CONTROLS = /[\u007f-\u009f]/g;

const hex = (char: string) => char.charCodeAt(0).toString(16).padStart(2, '0');

/** `text` with every control character as `\xHH` (ESC is `\x1b`): one line, printable. */
export function escapeControls(text: string): string {
  return text.replace(CONTROLS, (char) => `\\x${hex(char)}`);
}

/** A message of several lines: its line breaks kept, every other control character escaped. */
export function escapeMessage(text: string): string {
  return text.replace(CONTROLS_BUT_NEWLINE, (char) => `\\x${hex(char)}`);
}

/**
 * JSON text whose strings escape DEL and C1 too (`\u009b`): JSON.stringify escapes only C0. The
 * same JSON value, safe to print on a terminal.
 */
export function terminalJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(JSON_RAW_CONTROLS, (char) => `\\u00${hex(char)}`);
}
