/**
 * @module A 5×7 pixel font drawn as SVG paths. The "simulated" caption must look the same on
 * every machine and keep renders byte-identical, so it cannot depend on installed fonts.
 */

const GLYPH_ROWS = 7;
const GLYPH_COLS = 5;

// One string per glyph: 7 rows of 5 columns, '#' = ink.
const GLYPHS: Record<string, string> = {
  A: '.###. #...# #...# ##### #...# #...# #...#',
  B: '####. #...# #...# ####. #...# #...# ####.',
  C: '.#### #.... #.... #.... #.... #.... .####',
  D: '####. #...# #...# #...# #...# #...# ####.',
  E: '##### #.... #.... ####. #.... #.... #####',
  F: '##### #.... #.... ####. #.... #.... #....',
  G: '.#### #.... #.... #..## #...# #...# .####',
  H: '#...# #...# #...# ##### #...# #...# #...#',
  I: '##### ..#.. ..#.. ..#.. ..#.. ..#.. #####',
  J: '..### ...#. ...#. ...#. ...#. #..#. .##..',
  K: '#...# #..#. #.#.. ##... #.#.. #..#. #...#',
  L: '#.... #.... #.... #.... #.... #.... #####',
  M: '#...# ##.## #.#.# #.#.# #...# #...# #...#',
  N: '#...# ##..# #.#.# #..## #...# #...# #...#',
  O: '.###. #...# #...# #...# #...# #...# .###.',
  P: '####. #...# #...# ####. #.... #.... #....',
  Q: '.###. #...# #...# #...# #.#.# #..#. .##.#',
  R: '####. #...# #...# ####. #.#.. #..#. #...#',
  S: '.#### #.... #.... .###. ....# ....# ####.',
  T: '##### ..#.. ..#.. ..#.. ..#.. ..#.. ..#..',
  U: '#...# #...# #...# #...# #...# #...# .###.',
  V: '#...# #...# #...# #...# #...# .#.#. ..#..',
  W: '#...# #...# #...# #.#.# #.#.# ##.## #...#',
  X: '#...# #...# .#.#. ..#.. .#.#. #...# #...#',
  Y: '#...# #...# .#.#. ..#.. ..#.. ..#.. ..#..',
  Z: '##### ....# ...#. ..#.. .#... #.... #####',
  '0': '.###. #...# #..## #.#.# ##..# #...# .###.',
  '1': '..#.. .##.. ..#.. ..#.. ..#.. ..#.. .###.',
  '2': '.###. #...# ....# ...#. ..#.. .#... #####',
  '3': '####. ....# ....# .###. ....# ....# ####.',
  '4': '...#. ..##. .#.#. #..#. ##### ...#. ...#.',
  '5': '##### #.... ####. ....# ....# #...# .###.',
  '6': '.###. #.... #.... ####. #...# #...# .###.',
  '7': '##### ....# ...#. ..#.. .#... .#... .#...',
  '8': '.###. #...# #...# .###. #...# #...# .###.',
  '9': '.###. #...# #...# .#### ....# ....# .###.',
  '-': '..... ..... ..... ##### ..... ..... .....',
  '.': '..... ..... ..... ..... ..... .##.. .##..',
  ':': '..... .##.. .##.. ..... .##.. .##.. .....',
  '#': '.#.#. ##### .#.#. .#.#. .#.#. ##### .#.#.',
  '/': '....# ...#. ...#. ..#.. .#... .#... #....',
  '|': '..#.. ..#.. ..#.. ..#.. ..#.. ..#.. ..#..',
  ' ': '..... ..... ..... ..... ..... ..... .....',
};

/** Advance per character in pixel units (glyph width plus one column of spacing). */
const ADVANCE = GLYPH_COLS + 1;

/** Width of `text` at `scale` pixels per font pixel. */
export function textWidth(text: string, scale: number): number {
  return Math.max(0, text.length * ADVANCE - 1) * scale;
}

export const TEXT_HEIGHT_UNITS = GLYPH_ROWS;

/**
 * SVG path data for `text` (upper-cased; unknown characters render as blanks), top-left at
 * (x, y). Runs of ink in a row merge into one rectangle to keep the path short.
 */
export function textPath(text: string, x: number, y: number, scale: number): string {
  const parts: string[] = [];
  [...text.toUpperCase()].forEach((char, index) => {
    const rows = (GLYPHS[char] ?? GLYPHS[' ']).split(' ');
    const left = x + index * ADVANCE * scale;
    rows.forEach((row, r) => {
      let c = 0;
      while (c < row.length) {
        if (row[c] !== '#') {
          c += 1;
          continue;
        }
        let end = c;
        while (end < row.length && row[end] === '#') end += 1;
        parts.push(`M${fmt(left + c * scale)} ${fmt(y + r * scale)}h${fmt((end - c) * scale)}v${fmt(scale)}h${fmt(-(end - c) * scale)}z`);
        c = end;
      }
    });
  });
  return parts.join('');
}

function fmt(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(2);
}
