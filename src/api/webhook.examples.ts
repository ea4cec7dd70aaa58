/** Examples of the webhook operations and events in the OpenAPI document (examples.ts holds the others). */
import { EXAMPLES } from "./examples";

const at = "2026-11-22T10:00:00.000Z";
const webhook = {
  url: "https://example.com/transync/webhook",
  events: ["job.finished", "results.available", "attention.created", "usage.threshold", "ping"],
  created_at: at,
  updated_at: at,
  previous_secret_expires_at: null,
  disabled_at: null,
  failing_since: null,
};
const delivery = {
  id: "msg_2f1c7b0e6a4d4c1f9b3a8e5d7c6b4a21",
  event: "job.finished",
  created_at: at,
  attempts: 1,
  status: "delivered",
  status_code: 204,
  duration_ms: 182,
  error: null,
};

export const WEBHOOK_EXAMPLES = {
  webhookIn: { url: "https://example.com/transync/webhook", events: ["job.finished", "results.available"] },
  webhook,
  webhookWithSecret: { ...webhook, secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" },
  test: { id: "msg_7d3e0c1b9a8f4e2d8c6b5a4f3e2d1c0b", event: "ping" },
  deliveries: {
    deliveries: [
      delivery,
      {
        ...delivery,
        id: "msg_0a1b2c3d4e5f60718293a4b5c6d7e8f9",
        event: "results.available",
        attempts: 3,
        status: "pending",
        status_code: 503,
        duration_ms: 10_000,
        error: "HTTP 503: upstream unavailable",
      },
    ],
  },
  events: {
    "job.finished": { type: "job.finished", timestamp: at, data: { ...EXAMPLES.job, status: "succeeded", finished_at: at } },
    "results.available": { type: "results.available", timestamp: at, data: { pending: 240, languages: ["de", "fr"] } },
    "attention.created": { type: "attention.created", timestamp: at, data: { count: 1, items: EXAMPLES.attention.items.slice(0, 1) } },
    "usage.threshold": { type: "usage.threshold", timestamp: at, data: { month: "2026-11", used_characters: 800_000, included_characters: 1_000_000, percent: 80 } },
    ping: { type: "ping", timestamp: at, data: {} },
  },
};
