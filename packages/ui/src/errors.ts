/** The view's own failures, each with a stable code and the HTTP status it answers with. */
export const UiErrorCode = {
  /** The request asked for something the view does not have (a page, an asset, an instance). */
  NotFound: 'THRESHER_UI_NOT_FOUND',
  /** The request was not well formed (a missing field, variables that are not a JSON object). */
  BadRequest: 'THRESHER_UI_BAD_REQUEST',
  /** No access token, or a wrong one. */
  Unauthorized: 'THRESHER_UI_UNAUTHORIZED',
  /** An action without its page's token, from another origin, or in read-only mode. */
  Forbidden: 'THRESHER_UI_FORBIDDEN',
  /** A method the address does not take. */
  MethodNotAllowed: 'THRESHER_UI_METHOD_NOT_ALLOWED',
  /** The server would listen beyond this machine without an access token. */
  TokenRequired: 'THRESHER_UI_TOKEN_REQUIRED',
} as const;
export type UiErrorCode = (typeof UiErrorCode)[keyof typeof UiErrorCode];

const STATUS: Record<UiErrorCode, number> = {
  THRESHER_UI_NOT_FOUND: 404,
  THRESHER_UI_BAD_REQUEST: 400,
  THRESHER_UI_UNAUTHORIZED: 401,
  THRESHER_UI_FORBIDDEN: 403,
  THRESHER_UI_METHOD_NOT_ALLOWED: 405,
  THRESHER_UI_TOKEN_REQUIRED: 500,
};

export class UiError extends Error {
  override readonly name = 'UiError';
  readonly status: number;

  constructor(
    readonly code: UiErrorCode,
    message: string,
  ) {
    super(message);
    this.status = STATUS[code];
  }
}
