/**
 * A channel's refusal: `temporary` ones are tried again on the retry
 * schedule. `outcomeUnknown`: the message was handed over and no answer
 * says whether the provider took it (a timeout, a lost connection), so the
 * payer may have it.
 */
export class SendError extends Error {
  constructor(
    message: string,
    readonly temporary: boolean,
    readonly outcomeUnknown = false,
  ) {
    super(message);
    this.name = 'SendError';
  }
}
