/**
 * The stored files an api's answers carried the bytes of, by where it took them
 * (relay_answer_file_reads_total): `fresh`, published by the worker that stored them, or `store`.
 */
export async function answerFileReads(apiUrl: string): Promise<{ fresh: number; store: number }> {
  const text = await (await fetch(`${apiUrl}/metrics`)).text();
  const count = (from: string) =>
    Number(new RegExp(`^relay_answer_file_reads_total\\{from="${from}"[^}]*\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
  return { fresh: count('fresh'), store: count('store') };
}
