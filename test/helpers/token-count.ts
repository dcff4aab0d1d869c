// How the stand-in model counts tokens: about four characters a token, as the vendors' tokenizers average on
// English and code.
const CHARS_PER_TOKEN = 4;

export function tokensOf(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}
