import express, { type NextFunction, type Request, type Response } from "express";
import { pool } from "./db/pool.js";

export class DomainError extends Error {
  constructor(message: string, readonly status: number) {
    super(message);
  }
}

const app = express();
app.use(express.json());

app.get("/healthz", async (_req, res) => {
  await pool.query("select 1");
  res.json({ ok: true });
});

app.post("/api/checkout", async (_req, res) => {
  res.status(501).json({ error: "not implemented in the example tree" });
});

app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
  if (err instanceof DomainError) {
    res.status(err.status).json({ error: err.message });
    return;
  }
  console.error(err);
  res.status(500).json({ error: "internal error" });
});

const port = Number(process.env.PORT ?? 3000);
app.listen(port, () => console.log(`acme-shop listening on ${port}`));
