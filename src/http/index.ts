export { envelopeError, sendEnvelopeError } from "./envelope-format.js";
export {
  HTTP_STATUS,
  HttpError,
  type HttpErrorCode,
  type HttpErrorOptions,
  isHttpErrorCode,
  noRouteError,
} from "./http-error.js";
export { type OpenAiErrorBody, openAiError, sendOpenAiError } from "./openai-format.js";
export { type OpenApiInfo, openApiDocument } from "./openapi.js";
export {
  type Access,
  type Route,
  type RouteInput,
  RouteRegistry,
  routeDefiner,
  type Surface,
} from "./route-definer.js";
export { type ErrorTranslator, toHttpError } from "./to-http-error.js";
