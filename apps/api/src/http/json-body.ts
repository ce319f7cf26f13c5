import express, { type NextFunction, type Request, type Response } from 'express';
import { AppError, DEFAULT_JSON_SHAPE, formatSize, inspectJsonShape, type JsonShapeRefusal } from '@relay/core';

/** RFC 8259 8.1: JSON exchanged between systems must be UTF-8. */
const UTF8 = /^utf-?8$/i;

export interface JsonBodyOptions {
  /** The longest string a field may hold (the pre-scan's bound); 64 KiB unless set. */
  maxStringBytes?: number;
  /** The endpoint takes multipart/form-data too (its image files): what a form sent as JSON is told to send instead. */
  form?: boolean;
  /** Its long strings are inline images of at most this many bytes: an oversize data URL is told in those terms. */
  inputImageMaxBytes?: number;
}

/** What a JSON-only endpoint says to a form: the fields as JSON, and where its image files go. */
const asJson = (options: JsonBodyOptions) =>
  `this endpoint takes a JSON object only, not a form: send the fields as JSON${
    options.inputImageMaxBytes
      ? ', input images in it as URLs or data:image/<format>;base64,<data> strings (image files go to POST /v1/images/edits as multipart/form-data)'
      : ''
  }`;

/** The refusal in the words of this endpoint: what it takes instead, the field at fault. */
function refusal(refused: JsonShapeRefusal, options: JsonBodyOptions): AppError {
  switch (refused.kind) {
    case 'multipart': {
      const sentAs = `the request body is not JSON: it starts with ${refused.head}, which looks like multipart/form-data sent with Content-Type: application/json`;
      if (options.form) {
        return new AppError(
          'invalid_json',
          `${sentAs}; send the form with Content-Type: multipart/form-data and its boundary (curl -F sets both: drop -H 'Content-Type: application/json'), or send a JSON object`,
        );
      }
      return new AppError('invalid_json', `${sentAs}; ${asJson(options)}`);
    }
    case 'not_json':
      return new AppError(
        'invalid_json',
        `the request body is ${refused.message}; send a JSON object with Content-Type: application/json${options.form ? ', or a multipart/form-data form' : ''}`,
      );
    case 'string': {
      const param = refused.field || undefined;
      if (refused.dataUrl && options.inputImageMaxBytes) {
        const max = options.inputImageMaxBytes;
        const message =
          `${refused.field || 'the JSON body'}: a data URL of ${formatSize(refused.bytes)} (${refused.bytes} bytes), ` +
          `an image of about ${formatSize(Math.floor(refused.bytes * 0.75))}; input images may be at most ${formatSize(max)} (${max} bytes), ` +
          `${formatSize(refused.limit)} as a data URL: send a smaller image, or a link to it`;
        return new AppError('invalid_request', message, { param });
      }
      return new AppError('invalid_request', refused.message, { param });
    }
    default:
      return new AppError('invalid_request', refused.message);
  }
}

/**
 * JSON bodies only: another content type or charset is a 415, broken JSON a 400, an oversize
 * body a 413 (the error handler maps body-parser's errors), a body too deep or too busy to be
 * any request of this API a 400 before it is parsed, and so is one that is not JSON at all (a
 * form sent with a JSON Content-Type is told so, before its file's bytes are counted as
 * nesting). Anything but an object is a 400.
 */
export function jsonBody(limitBytes: number, options: number | JsonBodyOptions = {}) {
  const settings: JsonBodyOptions = typeof options === 'number' ? { maxStringBytes: options } : options;
  const shape = { ...DEFAULT_JSON_SHAPE, maxStringBytes: settings.maxStringBytes ?? DEFAULT_JSON_SHAPE.maxStringBytes };
  const parse = express.json({
    limit: limitBytes,
    strict: true,
    type: () => true,
    verify: (_req, _res, raw) => {
      const refused = inspectJsonShape(raw, shape);
      if (refused) throw refusal(refused, settings);
    },
  });
  const takes = settings.form ? 'application/json or multipart/form-data' : 'application/json';
  return [
    (req: Request, _res: Response, next: NextFunction) => {
      if (!req.is('application/json')) {
        // the media type as sent, without a form's boundary; a form where JSON goes is told what to send instead
        const given = req.get('content-type')?.split(';')[0]!.trim();
        const form = !settings.form && Boolean(req.is(['multipart/form-data', 'application/x-www-form-urlencoded']));
        return next(
          new AppError(
            'unsupported_media_type',
            given
              ? `Content-Type must be ${takes}, not ${given}${form ? `: ${asJson(settings)}` : ''}`
              : `Content-Type: ${takes} is required`,
          ),
        );
      }
      const charset = /;\s*charset=("?)([^";]+)\1/i.exec(req.get('content-type') ?? '')?.[2];
      if (charset !== undefined && !UTF8.test(charset)) {
        return next(new AppError('unsupported_media_type', `JSON must be UTF-8, not charset ${charset}`));
      }
      next();
    },
    parse,
    (req: Request, _res: Response, next: NextFunction) => {
      const body: unknown = req.body;
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        return next(new AppError('invalid_request', 'the request body must be a JSON object'));
      }
      next();
    },
  ];
}
