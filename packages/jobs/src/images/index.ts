import type { CapabilityModule } from '../capability-module.js';
import { openAIEditsDoor } from '../doors/openai-edits.js';
import { openAIImagesDoor } from '../doors/openai-images.js';
import { imageJobResultSchema } from './job.js';

/** Image generation: OpenAI's generations and edits doors onto one queue. */
export const imagesModule: CapabilityModule<'images'> = {
  result: imageJobResultSchema,
  doors: [openAIImagesDoor, openAIEditsDoor],
  delivered: (result) => ({ images: result.images.length }),
};
