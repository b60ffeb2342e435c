"""Cluster backends behind one interface (`backend.Backend`), their profiles and secrets."""
