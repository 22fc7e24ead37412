export { OpenAiChatModel, parseCompletion, parseRetryAfter, type OpenAiChatOptions } from './openai-chat-model.js';
