// The official `openai` npm client against `perfhound serve --fixed-step-time` (one token per request per
// step, so every count is known). Run by openai_npm_client_test.sh, which installs the client and starts
// the server: node openai_npm_client.mjs <port>. Exits non-zero, with a message, on any mismatch.
import OpenAI, { APIError } from 'openai';

const port = process.argv[2];
if (!port) {
  console.error('usage: node openai_npm_client.mjs <port>');
  process.exit(2);
}

// No retries: a failure must show as it happened, not be papered over by the client's retry loop.
const client = new OpenAI({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'unused', maxRetries: 0, timeout: 30_000 });

let failures = 0;
function check(condition, what, got) {
  if (condition) {
    console.log(`ok: ${what}`);
  } else {
    failures++;
    console.error(`FAIL: ${what} (got ${JSON.stringify(got)})`);
  }
}

// One group of checks; an exception (connection error, unexpected APIError) fails it and the next runs.
async function step(name, body) {
  try {
    await body();
  } catch (e) {
    failures++;
    console.error(`FAIL: ${name}: ${e?.constructor?.name ?? 'error'}: ${e?.message ?? e}${e?.cause ? ` (cause: ${e.cause})` : ''}`);
  }
}

// 1. Streaming chat completion with the final usage chunk.
await step('streaming chat completion', async () => {
  const maxTokens = 7;
  const stream = await client.chat.completions.create({
    model: 'perfhound-fixed-step',
    messages: [{ role: 'user', content: 'hi there' }],
    max_tokens: maxTokens,
    stream: true,
    stream_options: { include_usage: true },
  });
  let contentDeltas = 0;
  let text = '';
  let finishReason = null;
  let usage = null;
  let chunks = 0;
  const ids = new Set();
  for await (const chunk of stream) {
    chunks++;
    ids.add(chunk.id);
    if (chunk.object !== 'chat.completion.chunk') check(false, 'every chunk is a chat.completion.chunk', chunk.object);
    for (const choice of chunk.choices ?? []) {
      if (typeof choice.delta?.content === 'string' && choice.delta.content.length > 0) {
        contentDeltas++;
        text += choice.delta.content;
      }
      if (choice.finish_reason) finishReason = choice.finish_reason;
    }
    if (chunk.usage) usage = chunk.usage;
  }
  console.log(`stream: ${chunks} chunks, text ${JSON.stringify(text)}`);
  check(contentDeltas === maxTokens, `stream: ${maxTokens} content deltas`, contentDeltas);
  check(ids.size === 1, 'stream: one id for every chunk', [...ids]);
  check(finishReason === 'length', 'stream: finish_reason "length"', finishReason);
  check(usage?.completion_tokens === maxTokens, `stream: usage.completion_tokens == ${maxTokens}`, usage);
  // "hi there" is 2 tokens plus the 4-token per-message overhead (as in http_server_test).
  check(usage?.prompt_tokens === 6, 'stream: usage.prompt_tokens == 6', usage);
  check(usage?.total_tokens === 6 + maxTokens, `stream: usage.total_tokens == ${6 + maxTokens}`, usage);
});

// 2. Non-streaming (legacy) completion.
await step('non-streaming completion', async () => {
  const r = await client.completions.create({ model: 'perfhound-fixed-step', prompt: 'a b c', max_tokens: 4 });
  check(r.object === 'text_completion', 'completion: object "text_completion"', r.object);
  check(r.choices?.length === 1 && typeof r.choices[0].text === 'string' && r.choices[0].text.length > 0,
        'completion: one choice with text', r.choices);
  check(r.choices?.[0]?.finish_reason === 'length', 'completion: finish_reason "length"', r.choices?.[0]?.finish_reason);
  check(r.usage?.completion_tokens === 4, 'completion: usage.completion_tokens == 4', r.usage);
  check(r.usage?.prompt_tokens === 3, 'completion: usage.prompt_tokens == 3', r.usage);
  check(r.usage?.total_tokens === 7, 'completion: usage.total_tokens == 7', r.usage);
});

// 3. Models: exactly the one served.
await step('models.list()', async () => {
  const models = [];
  for await (const m of client.models.list()) models.push(m);
  check(models.length === 1, 'models.list(): one model', models);
  check(models[0]?.id === 'perfhound-fixed-step', 'models.list(): id "perfhound-fixed-step"', models[0]?.id);
});

// 4. A bad request: the client throws its APIError with the status and the server's message.
await step('bad request', async () => {
  let error = null;
  try {
    await client.chat.completions.create({
      model: 'perfhound-fixed-step',
      messages: [{ role: 'user', content: 'x' }],
      max_tokens: 0,
    });
  } catch (e) {
    error = e;
  }
  check(error instanceof APIError, 'max_tokens 0: the client throws an APIError', error && String(error));
  check(error?.status === 400, 'max_tokens 0: status 400', error?.status);
  check(error?.param === 'max_tokens', 'max_tokens 0: error.param "max_tokens"', error?.param);
  if (error) console.log(`error message: ${error.message}`);
});

// 5. The server is still up after the error.
await step('server still up', async () => {
  const models = await client.models.list();
  check(models.data?.length === 1, 'after the error: the server still answers', models.data);
});

if (failures > 0) {
  console.error(`${failures} check(s) failed`);
  process.exit(1);
}
console.log('all checks passed');
