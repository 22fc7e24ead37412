/** A report document: JSON text, or parts (strings and UTF-8 bytes) whose concatenation is the JSON text. */
export type ReportDocument = string | ReadonlyArray<string | Uint8Array>;

/**
 * Where the evaluation is published. The file sink writes it atomically; tests keep it in memory.
 * The document arrives already serialised (possibly in parts) so the sink never walks a report twice.
 */
export interface ReportSink {
  /**
   * Publishes a complete report document. Resolves once it is in place (renamed into place for a file).
   * Rejects with a one-line Error when it cannot be written; the caller must then stop.
   *
   * Lifetime: the `Uint8Array` parts are borrowed. They are views of the report writer's own buffers
   * (no copy per publish) and are valid only until the returned promise settles; the next document the
   * writer builds reuses them. A sink that keeps a document past that point must copy its byte parts
   * (`part.slice()`, or decode them to text) before it resolves or rejects.
   */
  publish(document: ReportDocument): Promise<void>;
}
