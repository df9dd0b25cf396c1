// Keeps every hb_* library non-empty while a layer is being written.
