/** A request the dashboard refuses or cannot answer: the HTTP status and a message for the page. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}
