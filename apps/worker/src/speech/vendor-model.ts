import type { Logger, SpeechModel } from '@relay/core';
import { UpstreamError } from '../upstreams/upstream-error.js';

/**
 * The vendor's word that it does not serve this model (Gemini: 404 NOT_FOUND "models/<model> is
 * not found for API version v1beta…"), not any 404: a wrong base URL's page names no model.
 */
const noSuchModel = (error: unknown, vendorModel: string) =>
  error instanceof UpstreamError && error.details.status === 404 && error.message.includes(`models/${vendorModel}`);

/**
 * Which vendor model a speech call goes to. A public id whose vendor model retires (the catalog's
 * `retirement`) is answered by its successor from the first call the vendor answered 404 for the
 * model, which this worker then remembers (one 404 per worker, not per job), or from its sunset
 * when the catalog sets one.
 */
export function createVendorModels(log: Logger) {
  const gone = new Set<string>();
  const said = new Set<string>();

  const retiring = (model: SpeechModel, vendorModel: string) => (vendorModel === model.upstreamModel ? model.retirement : undefined);

  function successorOf(model: SpeechModel, vendorModel: string, now: number): string | undefined {
    const retirement = retiring(model, vendorModel);
    if (!retirement) return undefined;
    const past = retirement.sunset !== undefined && now >= Date.parse(retirement.sunset);
    return gone.has(vendorModel) || past ? retirement.successor : undefined;
  }

  function tell(publicId: string, vendorModel: string, successor: string, why: string) {
    if (said.has(vendorModel)) return;
    said.add(vendorModel);
    log.warn(
      { model: publicId, vendorModel, successor },
      `${vendorModel} is retired (${why}): ${publicId} is answered by ${successor}; set the model's upstreamModel in RELAY_CONFIG to choose another`,
    );
  }

  return {
    /** Runs the call on the model the public id stands for now; the vendor model that answered comes back with the value. */
    async call<T>(
      publicId: string,
      model: SpeechModel,
      vendorModel: string,
      run: (vendorModel: string) => Promise<T>,
      now = Date.now(),
    ): Promise<{ value: T; vendorModel: string }> {
      const successor = successorOf(model, vendorModel, now);
      if (successor) {
        tell(
          publicId,
          vendorModel,
          successor,
          gone.has(vendorModel) ? 'the vendor answered 404 for it' : `sunset ${model.retirement!.sunset}`,
        );
        return { value: await run(successor), vendorModel: successor };
      }
      try {
        return { value: await run(vendorModel), vendorModel };
      } catch (error) {
        const retirement = retiring(model, vendorModel);
        if (!retirement || !noSuchModel(error, vendorModel)) throw error;
        gone.add(vendorModel);
        tell(publicId, vendorModel, retirement.successor, 'the vendor answered 404 for it');
        return { value: await run(retirement.successor), vendorModel: retirement.successor };
      }
    },
  };
}
export type VendorModels = ReturnType<typeof createVendorModels>;
