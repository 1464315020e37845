// The few demo ids that never change from one load to the next, so the /agent OpenAPI examples
// (src/surfaces/agent/agent.examples.ts) name rows that exist after `npm start`: the main
// provider's three plan versions and the "invoiced" customer with its subscription. Every other id
// of the demo is drawn afresh. Demo only: production refuses the demo dataset.
export const DEMO_FIXED_IDS = {
  plans: {
    basic: '1f0b3c5e-7a92-4d1e-8b6c-0a2d4f6e8c10',
    fast: '2c4e6a80-1d3f-4b5c-9e7a-0f1e2d3c4b5a',
    faster: '7a9c1e3b-5d7f-4a2c-8b4d-6e8f0a2c4e6b',
  },
  invoiced: {
    customer: '5b0e6c1a-3d2f-4e8b-9a71-c4d2e6f80a13',
    subscription: '9e2d4a7c-1b3f-4c5d-8e6f-a0b1c2d3e4f5',
  },
} as const;
