/** A channel's refusal: `temporary` ones are tried again on the retry schedule. */
export class SendError extends Error {
  constructor(
    message: string,
    readonly temporary: boolean,
  ) {
    super(message);
    this.name = 'SendError';
  }
}
