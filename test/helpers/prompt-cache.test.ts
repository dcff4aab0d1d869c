// The stand-in model's prompt cache reads what the providers' caches would: the longest run of leading blocks an
// earlier request sent too, from 1,024 tokens, in 128-token steps for OpenAI, and for Anthropic only what an
// earlier request marked with cache_control, wherever this one puts its marks.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PromptCache } from './prompt-cache';

/** A block of text `tokens` tokens long (four characters a token, less what its JSON wraps it in). */
const text = (tokens: number, fill = 'a') => ({ type: 'text', text: fill.repeat(tokens * 4 - 30) });
const marked = <T extends object>(block: T) => ({ ...block, cache_control: { type: 'ephemeral' } });

describe("the stand-in model's prompt cache", () => {
  it('reads nothing the first time, then the leading blocks a later request repeats, and not past the first that differs', () => {
    const cache = new PromptCache();
    const system = [{ text: 's'.repeat(6000) }];
    const first = { systemInstruction: { parts: system }, contents: [{ role: 'user', parts: [{ text: 'one' }] }] };
    assert.deepEqual(cache.read('gemini', first), { read: 0, written: 0 });
    const again = { ...first, contents: [...first.contents, { role: 'model', parts: [{ text: 'two' }] }] };
    const { read } = cache.read('gemini', again);
    assert.ok(read > 1500 && read < 1530, `6,000 characters of system text and the first turn: ${read}`);
    const otherSystem = { ...again, systemInstruction: { parts: [{ text: 'S'.repeat(6000) }] } };
    assert.deepEqual(cache.read('gemini', otherSystem), { read: 0, written: 0 }, 'a changed first block ends the match');
  });

  it('reads no prefix shorter than 1,024 tokens', () => {
    const cache = new PromptCache();
    const small = { messages: [{ role: 'system', content: 'x'.repeat(4000) }] };
    cache.read('chat', small);
    assert.equal(cache.read('chat', small).read, 0);
  });

  it('counts what OpenAI reads in steps of 128 tokens', () => {
    const cache = new PromptCache();
    const body = { instructions: 'i'.repeat(5000), input: [{ role: 'user', content: 'hello' }] };
    cache.read('responses', body);
    const { read } = cache.read('responses', body);
    assert.ok(read > 1024 && read % 128 === 0, `${read}`);
  });

  it('keeps for Anthropic only the prefixes a request marked, whatever the later request marks, and says what it wrote', () => {
    const cache = new PromptCache();
    const tools = [{ name: 'edit', input_schema: {} }];
    const system = [marked(text(2000))];
    const prompt = { role: 'user', content: [marked(text(500, 'p'))] };
    const first = cache.read('anthropic', { tools, system, messages: [prompt] });
    assert.equal(first.read, 0);
    assert.ok(first.written > 2490, `it wrote up to its last mark: ${first.written}`);
    // The next turn moves the mark to its newest block: the earlier one reads from the cache all the same.
    const reply = { role: 'assistant', content: [text(10, 'r')] };
    const next = { role: 'user', content: [marked(text(10, 'n'))] };
    const second = cache.read('anthropic', { tools, system, messages: [{ ...prompt, content: [text(500, 'p')] }, reply, next] });
    assert.equal(second.read, first.written);
    assert.ok(second.written > 0 && second.written < 30, `and wrote the rest up to its mark: ${second.written}`);
    const unmarked = new PromptCache();
    const plain = { tools, system: [text(2000)], messages: [{ role: 'user', content: [text(500, 'p')] }] };
    unmarked.read('anthropic', plain);
    assert.deepEqual(unmarked.read('anthropic', plain), { read: 0, written: 0 }, 'a request that marks nothing is not cached');
  });
});
