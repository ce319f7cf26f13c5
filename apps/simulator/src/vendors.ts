import type { Vendor } from '@relay/core';
import { arkVendor } from './ark/vendor.js';
import { geminiVendor } from './gemini/vendor.js';
import type { SimVendor } from './vendor.js';

/**
 * Every vendor's fake, by vendor: a vendor @relay/core declares and this table lacks does not
 * compile. A new one is its folder (its routes, errors and answers) and a line here.
 */
export const SIM_VENDORS: { readonly [V in Vendor]: SimVendor } = {
  ark: arkVendor,
  gemini: geminiVendor,
};
