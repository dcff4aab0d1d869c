// The built-in editor of `canopy tui`, used when neither $VISUAL nor $EDITOR is set: a multi-line
// text with a cursor. Arrows, Home and End move, typing inserts, Backspace deletes, Enter breaks
// the line; the app handles Ctrl-S and Esc itself.
import { Box, Text, type Key } from 'ink';
import { createElement as h, type ReactElement } from 'react';
import { terminalSafe } from '../output.js';

export interface TextArea {
  lines: string[];
  row: number;
  col: number;
}

export function textArea(text: string): TextArea {
  return { lines: text.replace(/\n$/, '').split('\n'), row: 0, col: 0 };
}

export function areaText(area: TextArea): string {
  return `${area.lines.join('\n')}\n`;
}

/** The area after one key (or a burst of typed or pasted text). */
export function areaKey(area: TextArea, input: string, key: Key): TextArea {
  const { lines, row, col } = area;
  const line = lines[row];
  const at = (r: number, c: number): TextArea => ({ lines, row: r, col: Math.min(c, lines[r].length) });
  if (key.upArrow) return row > 0 ? at(row - 1, col) : area;
  if (key.downArrow) return row < lines.length - 1 ? at(row + 1, col) : area;
  if (key.leftArrow) return col > 0 ? at(row, col - 1) : row > 0 ? at(row - 1, lines[row - 1].length) : area;
  if (key.home) return at(row, 0);
  if (key.end) return at(row, line.length);
  if (key.rightArrow) return col < line.length ? at(row, col + 1) : row < lines.length - 1 ? at(row + 1, 0) : area;
  if (key.backspace || key.delete) {
    if (col > 0) return replaced(area, row, 1, [line.slice(0, col - 1) + line.slice(col)], row, col - 1);
    if (row === 0) return area;
    const above = lines[row - 1];
    return replaced(area, row - 1, 2, [above + line], row - 1, above.length);
  }
  const typed = key.return ? '\n' : key.tab ? '  ' : key.ctrl || key.meta ? '' : input.replace(/\r\n?/g, '\n');
  if (!typed) return area;
  const pieces = (line.slice(0, col) + typed + line.slice(col)).split('\n');
  const last = pieces.length - 1;
  return replaced(area, row, 1, pieces, row + last, pieces[last].length - (line.length - col));
}

function replaced(area: TextArea, from: number, count: number, lines: string[], row: number, col: number): TextArea {
  return { lines: [...area.lines.slice(0, from), ...lines, ...area.lines.slice(from + count)], row, col };
}

/** The lines that fit in `height`, scrolled so the cursor's line is in view, the cursor drawn inverse. */
export function TextAreaView(props: { title: string; area: TextArea; height: number }): ReactElement {
  const { title, area, height } = props;
  const shown = Math.max(1, height - 2);
  const start = Math.min(Math.max(0, area.row - Math.floor(shown / 2)), Math.max(0, area.lines.length - shown));
  const safe = (text: string) => terminalSafe(text, { multiline: false });
  return h(
    Box,
    { flexDirection: 'column' },
    h(Text, { bold: true }, safe(title)),
    h(Text, { dimColor: true }, 'built-in editor ($VISUAL and $EDITOR are unset): Ctrl-S saves · Esc abandons'),
    ...area.lines.slice(start, start + shown).map((line, i) => {
      const row = start + i;
      if (row !== area.row) return h(Text, { key: row, wrap: 'truncate' }, safe(line) || ' ');
      return h(
        Text,
        { key: row, wrap: 'truncate' },
        safe(line.slice(0, area.col)),
        h(Text, { inverse: true }, safe(line[area.col] ?? ' ')),
        safe(line.slice(area.col + 1)),
      );
    }),
  );
}
