/** A body already serialised: sent as it is, not stringified again. */
export class JsonText {
  constructor(readonly text: string) {}
}
