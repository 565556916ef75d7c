package dev.cuecard;

/** A tool call the model made: its id, the tool's name and the arguments as JSON text (possibly invalid on purpose). */
public record ToolCall(String id, String name, String arguments) {}
