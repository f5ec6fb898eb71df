// Types of scripts/build-web.mjs for the TypeScript tests that build the admin front end.
export declare const WEB_OUT: string;

export interface BuiltFile {
  readonly name: string;
  readonly bytes: number;
  readonly gzip: number;
}

export interface BuiltWeb {
  readonly outdir: string;
  readonly index: string;
  /** The entry and the chunks it imports statically: what a first visit loads. */
  readonly initial: readonly BuiltFile[];
  /** Every JavaScript file, lazy chunks included. */
  readonly chunks: readonly BuiltFile[];
}

export declare function buildWeb(options?: {
  outdir?: string;
  minify?: boolean;
}): Promise<BuiltWeb>;
