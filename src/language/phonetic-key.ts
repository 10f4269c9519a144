// A Portuguese (pt-BR) phonetic key: two spellings that sound alike get the same key, so a drug
// name the speech-to-text model wrote by ear ("meloxican", "sefalexina", "prednizona") can be
// matched to the lexicon's spelling. Written for folded words (lower case, no accents; "ç" is read
// as "s" before folding loses it). The rules, in order:
//
// - ph → f; ch → x; lh → l; nh → n; h otherwise silent ("hidroxizina" = "idroxizina")
// - qu, gu before e/i → k, g ("quetamina" = "cetamina"); q → k
// - c before e/i → s, otherwise k; ç, z and ss → s; sc, xc before e/i → s ("sefalexina" = "cefalexina")
// - g before e/i → j; y → i; w → v; k → k
// - l before a consonant or at the end → u (pt-BR says "sal" as "sau")
// - m before a consonant or at the end → n (both only nasalise the vowel: "meloxicam" = "meloxican")
// - a final e → i, a final o → u (unstressed final vowels as spoken)
// - a letter doubled → one ("amoxicilinna", "predinisolonna")
//
// Linear in the word: one pass of bounded regexes.

export function phoneticKey(word: string): string {
  let key = word
    .toLowerCase()
    .replace(/ç/g, 's')
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-z]/g, '');
  key = key
    .replace(/ph/g, 'f')
    .replace(/ch/g, 'x')
    .replace(/lh/g, 'l')
    .replace(/nh/g, 'n')
    .replace(/h/g, '')
    .replace(/qu(?=[ei])/g, 'k')
    .replace(/gu(?=[ei])/g, 'g')
    .replace(/q/g, 'k')
    .replace(/[sx]c(?=[ei])/g, 's')
    .replace(/c(?=[ei])/g, 's')
    .replace(/c/g, 'k')
    .replace(/g(?=[ei])/g, 'j')
    .replace(/z/g, 's')
    .replace(/y/g, 'i')
    .replace(/w/g, 'v')
    .replace(/l(?=[^aeiou]|$)/g, 'u')
    .replace(/m(?=[^aeiou]|$)/g, 'n')
    .replace(/e$/, 'i')
    .replace(/o$/, 'u');
  let collapsed = '';
  for (const char of key) if (char !== collapsed.at(-1)) collapsed += char;
  return collapsed;
}
