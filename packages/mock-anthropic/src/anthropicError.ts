const errorTypeByStatus: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

/** The Anthropic error type a real API uses for this HTTP status. */
export function anthropicErrorType(status: number): string {
  return errorTypeByStatus[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

/** The body of an Anthropic API error response: `{type:'error', error:{type, message}}`. */
export function anthropicErrorBody(status: number, message: string, type = anthropicErrorType(status)) {
  return { type: 'error', error: { type, message } };
}
