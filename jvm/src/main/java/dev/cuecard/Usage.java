package dev.cuecard;

/** Token usage as a provider reports it ({@code cachedTokens} only when the script gives it). */
public record Usage(long inputTokens, long outputTokens, long totalTokens, Long cachedTokens) {}
