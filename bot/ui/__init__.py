"""What the cogs show in Discord: replies, embeds and views shared between features."""
