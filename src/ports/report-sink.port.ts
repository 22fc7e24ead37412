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
   */
  publish(document: ReportDocument): Promise<void>;
}
