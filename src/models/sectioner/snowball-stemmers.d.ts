// snowball-stemmers ships no types; this is the one call we make of it.
declare module 'snowball-stemmers' {
  interface Stemmer {
    stem(word: string): string;
  }
  const snowball: { newStemmer(language: string): Stemmer };
  export default snowball;
}
