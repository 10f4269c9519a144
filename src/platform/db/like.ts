/** Search text for LIKE/ILIKE: its wildcards (and the escape character) are literal characters, not patterns. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}
