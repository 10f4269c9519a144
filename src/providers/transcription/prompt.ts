// The text a Whisper-style server is primed with (the `prompt` field of
// /audio/transcriptions). Whisper reads it as the transcript of the audio before this one: it
// makes the spelling of the words in it likelier and keeps the style of the text going. It keeps
// only the prompt's end when the prompt is too long (its last 223 tokens), so the words heard just
// before this audio go last, after the vocabulary, and the whole stays within the budget.

import type { TranscriptionPrompt } from './port.ts';

/** At most this share of the budget goes to the words heard before; the rest to the vocabulary. */
const PRECEDING_SHARE = 0.5;

/** The last words of `text` within `maxChars`, whole words only. */
export function lastWords(text: string, maxChars: number): string {
  const words = text.trim().split(/\s+/).filter(Boolean);
  const kept: string[] = [];
  let length = 0;
  for (let i = words.length - 1; i >= 0; i--) {
    const added = words[i]!.length + (kept.length > 0 ? 1 : 0);
    if (length + added > maxChars) break;
    kept.unshift(words[i]!);
    length += added;
  }
  return kept.join(' ');
}

/**
 * The prompt for `prompt` within `maxChars` characters: the terms, likeliest first and each once,
 * as a comma-separated list ending in a full stop, then the words heard before. Null when there is
 * nothing to send or the budget is 0 (a server that refuses prompts).
 */
export function promptText(prompt: TranscriptionPrompt | undefined, maxChars: number): string | null {
  if (!prompt || maxChars <= 0) return null;
  const preceding = prompt.preceding ? lastWords(prompt.preceding, Math.floor(maxChars * PRECEDING_SHARE)) : '';
  // What the words before leave, less the ". " between the two parts.
  const room = maxChars - (preceding ? preceding.length + 1 : 0) - 1;
  const seen = new Set<string>();
  const terms: string[] = [];
  let length = 0;
  for (const raw of prompt.terms) {
    const term = raw.replace(/\s+/g, ' ').trim();
    const key = term.toLocaleLowerCase('pt-BR');
    if (term === '' || seen.has(key)) continue;
    const added = term.length + (terms.length > 0 ? 2 : 0);
    if (length + added > room) continue; // a shorter term further on may still fit
    seen.add(key);
    terms.push(term);
    length += added;
  }
  const vocabulary = terms.length > 0 ? `${terms.join(', ')}.` : '';
  const text = [vocabulary, preceding].filter(Boolean).join(' ');
  return text === '' ? null : text;
}
