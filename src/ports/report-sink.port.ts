/**
 * Where the evaluation is published. The file sink writes it atomically; tests keep it in memory.
 * The document arrives already serialised so the sink never walks a large report twice.
 */
export interface ReportSink {
  /**
   * Publishes a complete report document (JSON text). Resolves once it is durable in the sense of the
   * sink (renamed into place for a file). Rejects when it cannot be written; the caller must then stop.
   */
  publish(json: string): Promise<void>;
}
