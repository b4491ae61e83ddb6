/**
 * @thresher/ui: the web view of a Thresher engine — processes and instances on their diagrams, live, with
 * actions — as an embeddable Node handler (`createUiHandler`) or a server of its own (`startUiServer`).
 *
 * @module
 */
export type { Engine } from '@thresher/engine';
export { UiError, UiErrorCode } from './errors.js';
export { createUiHandler, type UiHandler, type UiOptions } from './handler.js';
export type { LiveSource } from './live.js';
export type { LinkedForms } from './pages/task-article.js';
export { isLoopback } from './security.js';
export { startUiServer, type UiServer, type UiServerOptions } from './server.js';
