/**
 * @module CSV cells and lines (RFC 4180) for the exports, safe to open in a spreadsheet: a text
 * cell that a spreadsheet would read as a formula (starting with =, +, -, @, a tab or a carriage
 * return; OWASP "CSV injection") is written with a leading apostrophe. Numbers are written as
 * they are, so a negative delta stays a number.
 */

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]|^\s|\s$/;

/** One cell: null/undefined empty, numbers as digits, text guarded and quoted when it must be. */
export function csvCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One record, CRLF-terminated as RFC 4180 has it. */
export function csvLine(cells: readonly (string | number | null | undefined)[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}
