/** Runs `body` with an upstream side (or anything closable), then closes it whatever happened. */
export async function withSide<S extends { close(): Promise<void> }>(side: S, body: (side: S) => Promise<void>): Promise<void> {
  try {
    await body(side);
  } finally {
    await side.close();
  }
}
