import { readFileSync } from 'node:fs';

/**
 * The config file the launcher hands the api: the operator's own (RELAY_CONFIG, inline or a path)
 * with npm start's `console` section added, inline. One the launcher cannot read goes on as it
 * is, so the api refuses it with its own words.
 */
export function withConsoleSection(
  relayConfig: string | undefined,
  section: { simulatorUrl?: string; demoKeyFile: string },
): string | undefined {
  const value = relayConfig?.trim();
  let file: Record<string, unknown> = {};
  try {
    if (value) file = JSON.parse(value.startsWith('{') ? value : readFileSync(value, 'utf8')) as Record<string, unknown>;
  } catch {
    return relayConfig;
  }
  if (typeof file !== 'object' || file === null || Array.isArray(file)) return relayConfig;
  return JSON.stringify({ ...file, console: { ...(file.console as object | undefined), ...section } });
}
