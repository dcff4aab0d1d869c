// Reading what people write for canopy: loop files, option files, spec files and config.json.
// Some editors (Notepad, Visual Studio…) start a UTF-8 file with a byte-order mark; it is no part
// of the text, and JSON.parse refuses it.
import { readFileSync } from 'node:fs';

const BYTE_ORDER_MARK = '\uFEFF';

/** The text of a file a person wrote, without a leading byte-order mark. */
export function readUserFile(file: string): string {
  return withoutByteOrderMark(readFileSync(file, 'utf8'));
}

/** `text` without a leading byte-order mark: a file's text that reached canopy as a string (a loop file given to loop_import). */
export function withoutByteOrderMark(text: string): string {
  return text.startsWith(BYTE_ORDER_MARK) ? text.slice(BYTE_ORDER_MARK.length) : text;
}
