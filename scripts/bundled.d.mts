export declare const BUNDLED: string[];
