// At most `limit` pieces of async work under way at once; the others wait, first come first
// served. The webhook worker's lanes go through one so that they never hold more than a few of
// the pool's connections, whatever the number of endpoints: the API keeps the rest.
export class Gate {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit)
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running += 1;
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      // The slot passes to the next in line as it is.
      if (next) next();
      else this.running -= 1;
    }
  }
}
