/**
 * The model gateway of a trial's or replay's run (`TrialDeps.startGateway`): the adapter for each kind of
 * answers, loaded when a run first starts one — a model in this process (`--stub-model`, `--model-replay`,
 * `replay`) or forward mode (`--model NAME --base-url URL`), whose real key is added here, never the run's.
 */
import type { ModelExchange, StartGateway } from '../ports/model-gateway.port.js';

export function gatewayStarter(apiKey: string | undefined): StartGateway {
  return async (spec) => {
    const { answers, models, fault } = spec;
    const options = { models, onExchange: (e: ModelExchange) => spec.onExchange(e), ...(fault !== undefined ? { fault } : {}) };
    if (answers.kind === 'forward')
      return (await import('../adapters/model-gateway/forward.js')).startForwardGateway({
        ...options,
        baseUrl: answers.baseUrl,
        apiKey,
      });
    return (await import('../adapters/model-gateway/model-gateway.js')).startModelGateway({
      ...options,
      model: answers.model,
    });
  };
}
