/**
 * feel-scala cases Thresher answers differently, each with its reason. Keep this short: a departure is
 * accepted only when matching feel-scala is impossible on this platform or would be a defect.
 */
export const DEPARTURES: Record<string, string> = {};
