"""The course service: students upload in the browser, one worker grades from a queue kept in the store."""
