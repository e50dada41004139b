// Run in a child process with no TINKER_* variables: two clients from the service resolver share one embedded
// service, and the process ends by itself once both are closed (the last close stops the embedded service).
import { datumFromTokensWeights } from '@cookbook/core';
import { serviceClientFor } from '@cookbook/training';

const a = serviceClientFor();
{
  await using b = serviceClientFor();
  const tc = await a.createLoraTrainingClient({ baseModel: 'local/qwen3-tiny', rank: 2 });
  const out = await tc.forward([datumFromTokensWeights([1, 2, 3], [1, 1, 1])], 'cross_entropy');
  const caps = await b.getServerCapabilities();
  console.log(
    JSON.stringify({
      sameServer: (await a.baseURL()) === (await b.baseURL()),
      url: await a.baseURL(),
      loss: out.metrics['loss:sum'],
      models: caps.supportedModels.map((m) => m.modelName),
    }),
  );
}
await a.close();
console.log(JSON.stringify({ closedAt: Date.now() }));
