package io.fencing.autoconfigure;

import java.util.Locale;

import io.fencing.OnBusy;

import org.springframework.core.convert.converter.Converter;

/**
 * Reads {@code fencing.on-busy} and {@code fencing.tasks.<name>.on-busy}: only
 * {@code skip} and {@code fail} are settings, so a mistyped value is refused naming those
 * two, not the enum's {@code DEFAULT}, which only an annotation can say.
 */
final class OnBusySetting implements Converter<String, OnBusy> {

	@Override
	public OnBusy convert(String source) {
		return switch (source.trim().toLowerCase(Locale.ROOT)) {
			case "skip" -> OnBusy.SKIP;
			case "fail" -> OnBusy.FAIL;
			default -> throw new IllegalArgumentException(
					"'" + source + "' is not an on-busy setting: write skip (the method returns null, or an empty "
							+ "Optional) or fail (LockBusyException)");
		};
	}

}
