export interface FileCounts {
  file: string;
  passed: number;
  failed: number;
  skipped: number;
  failures: { test: string; message: string }[];
}
export function startServer(): Promise<{ url: string; stop(): Promise<void> }>;
export function runSuite(url: string, filters?: string[]): Promise<FileCounts[]>;
