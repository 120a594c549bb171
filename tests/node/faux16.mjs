// pi-ai 1.6's faux provider registered in a models collection, as the pi 1.6 scripts use it
// (pi16_messages.mjs, pi16_proxy.mjs, pi16_transcript_roundtrip.mjs).
//
// fauxModels(options): { faux, models } — faux is fauxProvider(options) (setResponses,
// getModel), models a createModels() collection with faux's provider set, so
// models.streamSimple / completeSimple play faux's scripted replies.
import { createModels, fauxProvider } from "@earendil-works/pi-ai";

export function fauxModels(options) {
  const faux = fauxProvider(options);
  const models = createModels();
  models.setProvider(faux.provider);
  return { faux, models };
}
