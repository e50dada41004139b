// Run in a child process against a service started elsewhere (its URL in argv[2]): requests over keep-alive sockets
// (a training step, a long-polled future, sampling), then close(); the process must end by itself soon after.
import { datumFromTokensWeights, ModelInput } from '@cookbook/core';
import { ServiceClient } from '@cookbook/tinker-client';

const client = new ServiceClient({ baseURL: process.argv[2]!, warn: () => undefined });
const tc = await client.createLoraTrainingClient({ baseModel: 'local/qwen3-tiny', rank: 2 });
const out = await tc.forwardBackward([datumFromTokensWeights([1, 2, 3, 4], [0, 1, 1, 1])], 'cross_entropy');
await tc.optimStep({ learningRate: 1e-3 });
const sampler = await tc.saveWeightsAndGetSamplingClient();
const sample = await sampler.sample({
  prompt: ModelInput.fromInts([1, 2, 3]),
  numSamples: 1,
  samplingParams: { maxTokens: 2, temperature: 1 },
});
console.log(JSON.stringify({ loss: out.metrics['loss:sum'], tokens: sample.sequences[0]?.tokens.length ?? 0 }));
await client.close();
console.log(JSON.stringify({ closedAt: Date.now() }));
